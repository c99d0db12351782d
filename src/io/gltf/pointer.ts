import {
  Extension,
  ExtensionProperty,
  type IProperty,
  type Nullable,
  PropertyType,
  type ReaderContext,
  type WriterContext,
} from '@gltf-transform/core';

const NAME = 'KHR_animation_pointer';

/** The `KHR_animation_pointer` object of a channel target, as the file has it. */
export interface AnimationPointerDef {
  /** JSON pointer to the animated property, e.g. `/materials/0/pbrMetallicRoughness/baseColorFactor`. */
  pointer: string;
  [key: string]: unknown;
}

interface IAnimationPointer extends IProperty {
  definition: AnimationPointerDef;
}

/**
 * The `KHR_animation_pointer` target of one animation channel, kept verbatim (the pointer and any
 * `extras` or nested extensions) so the channel is written back as it was read.
 */
export class AnimationPointer extends ExtensionProperty<IAnimationPointer> {
  public static override readonly EXTENSION_NAME = NAME;
  declare extensionName: typeof NAME;
  declare propertyType: 'AnimationPointer';
  declare parentTypes: [PropertyType.ANIMATION_CHANNEL];

  protected init(): void {
    this.extensionName = NAME;
    this.propertyType = 'AnimationPointer';
    this.parentTypes = [PropertyType.ANIMATION_CHANNEL];
  }

  protected override getDefaults(): Nullable<IAnimationPointer> {
    return Object.assign(super.getDefaults(), { definition: { pointer: '' } });
  }

  /** The JSON pointer the channel animates. */
  getPointer(): string {
    return this.get('definition').pointer;
  }

  /** The extension object as read (a copy). */
  getDefinition(): AnimationPointerDef {
    return structuredClone(this.get('definition'));
  }

  /** Replaces the extension object (copied). */
  setDefinition(definition: AnimationPointerDef): this {
    return this.set('definition', structuredClone(definition));
  }
}

/**
 * `KHR_animation_pointer` as a passthrough glTF-Transform extension: glTF-Transform's core reads the
 * channel (`target.path` `'pointer'`, no node) but not its target's extension object, so without this
 * the channel would be written back without its pointer, which is invalid. Reading attaches an
 * {@link AnimationPointer} holding the object to each such channel; writing puts it back on the same
 * channel. rotsig does not evaluate these channels: the reader reports them and the writer keeps them
 * as they are.
 *
 * Source: the KHR_animation_pointer specification (Khronos glTF extensions registry), channel target
 * `{ path: 'pointer', extensions: { KHR_animation_pointer: { pointer } } }`.
 */
export class KHRAnimationPointer extends Extension {
  public static override readonly EXTENSION_NAME = NAME;
  public override readonly extensionName = NAME;

  /** A new {@link AnimationPointer} for `channel.setExtension('KHR_animation_pointer', p)`. */
  createAnimationPointer(definition: AnimationPointerDef): AnimationPointer {
    return new AnimationPointer(this.document.getGraph()).setDefinition(definition);
  }

  read(context: ReaderContext): this {
    const animations = context.jsonDoc.json.animations ?? [];
    animations.forEach((animationDef, a) => {
      const channels = context.animations[a]?.listChannels() ?? [];
      (animationDef.channels ?? []).forEach((channelDef, c) => {
        const def = (channelDef.target as { extensions?: Record<string, unknown> })?.extensions?.[NAME];
        if (def === null || typeof def !== 'object' || channels[c] === undefined) return;
        channels[c].setExtension(NAME, this.createAnimationPointer(def as AnimationPointerDef));
      });
    });
    return this;
  }

  write(context: WriterContext): this {
    const json = context.jsonDoc.json;
    for (const animation of this.document.getRoot().listAnimations()) {
      const index = context.animationIndexMap.get(animation);
      const animationDef = index === undefined ? undefined : json.animations?.[index];
      if (animationDef === undefined) continue;
      animation.listChannels().forEach((channel, c) => {
        const pointer = channel.getExtension<AnimationPointer>(NAME);
        const target = animationDef.channels[c]?.target as
          | { extensions?: Record<string, unknown> }
          | undefined;
        if (pointer === null || target === undefined) return;
        target.extensions = { ...(target.extensions ?? {}), [NAME]: pointer.getDefinition() };
      });
    }
    return this;
  }
}
